import numpy as np, circuitsim
tau=2.0
for tol in ({}, dict(rtol=1e-9, atol=1e-12)):
    res = circuitsim.parse(f"""
lag P q T tau={tau} y0=20
gain G T e k=-1
relay H e q uon=-19 uoff=-21 yon=30 yoff=0 s0=1
.tran 10 10m
""").simulate(**tol)
    ev = np.array([t for t, n in res.stats["events"]])
    th, tc = tau*np.log(11/9), tau*np.log(21/19)
    exact = [tau*np.log(10/9)]
    while exact[-1] < 10:
        exact.append(exact[-1] + (tc if len(exact) % 2 else th))
    exact = np.array(exact[:len(ev)])
    print(len(ev), np.max(np.abs(ev-exact)), res.stats["nsteps"])
