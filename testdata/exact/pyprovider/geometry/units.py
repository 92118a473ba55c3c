def area(value: float) -> str:
    """A homonym of Shape.area: a module-level function."""
    return f"{value} m2"
