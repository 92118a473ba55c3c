from .models.user import *


def helper():
    pass
