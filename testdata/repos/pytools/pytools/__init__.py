"""The pytools package."""

VERSION = "1.0"
