from torchmigrate.launch import main

main()
