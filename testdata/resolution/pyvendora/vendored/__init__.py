def thing(): return 1
