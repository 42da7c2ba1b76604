"""Jinja templates for the C that topspin-py generates (see README.md); read with importlib.resources.

This __init__ makes the folder a regular package, so that an editable install (pip install -e)
finds it as topspin_py.templates: setuptools' editable finder does not resolve a nested
namespace package mapped with package-dir.
"""
