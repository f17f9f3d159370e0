"""pgwire"""
