class Shape:
    """Anything with an area."""

    def area(self) -> float:
        raise NotImplementedError


class Square(Shape):
    def __init__(self, side: float) -> None:
        self.side = side

    def area(self) -> float:
        return self.side * self.side


def largest(shapes: list[Shape]) -> float:
    return max(shape.area() for shape in shapes)
