"""dialect"""
