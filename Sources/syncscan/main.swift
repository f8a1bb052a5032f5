print("syncscan")
