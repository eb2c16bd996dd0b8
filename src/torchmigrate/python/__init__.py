"""python"""
