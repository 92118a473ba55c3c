def helper():
    """The other helper."""
    return None
