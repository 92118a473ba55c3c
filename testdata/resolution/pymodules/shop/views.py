import json
from .models import Account, user
from .models.user import load, save
from .util import anything
from .missing import thing
from os.path import join
from shop.util import helper as assist


def render():
    return load(json.dumps(assist()))


def again(load):
    return load() or render()


import shop.util as tools


def through_modules(user=None):
    tools.helper()
    return user.load("k")


def by_submodule():
    return user.load("j")


registry = {"assist": assist}


class Base:
    def render(self):
        return ""


class Member(Base):
    def render(self):
        return "member"


class Guest(user.User):
    pass


import numpy as np
from vendored import thing


class Greeter(Base):
    def greet(self):
        return self.render() + self.name()

    def name(self):
        return "g"

    @staticmethod
    def plain(other):
        return other.render()
