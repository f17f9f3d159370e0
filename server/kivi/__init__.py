"""kivi"""
