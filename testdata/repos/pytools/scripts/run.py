from pytools.loader import Loader


def main():
    Loader("/").load("x")
