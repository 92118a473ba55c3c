from .user import User as Account
