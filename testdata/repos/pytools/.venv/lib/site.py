def hidden_env():
    pass
