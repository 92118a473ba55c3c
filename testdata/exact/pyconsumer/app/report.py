from geometry import Square
from geometry.shapes import largest
from geometry.units import area
import missingpkg


def report(sizes: list[float]) -> str:
    squares = [Square(size) for size in sizes]
    first = squares[0]
    return area(first.area()) + area(largest(squares)) + missingpkg.version
