"""pgcatalog"""
