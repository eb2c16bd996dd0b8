from torchmigrate.cli import main

main()
