def thing(): return 2
