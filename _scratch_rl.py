import numpy as np, circuitsim
tau=1e-6
def exact(t):
    # up step at 0.1 to 1 (rate 2), down step at 1 to -0.5 (rate 1)
    y=np.zeros_like(t)
    t1=0.1+(1-2*tau)/2
    m=(t>0.1)&(t<=t1); y[m]=2*(t[m]-0.1)
    m=(t>t1)&(t<=1); y[m]=1-2*tau*np.exp(-(t[m]-t1)/tau)
    y1=1-2*tau*np.exp(-(1-t1)/tau)
    t2=1+(y1-(-0.5)-tau)/1
    m=(t>1)&(t<=t2); y[m]=y1-(t[m]-1)
    m=t>t2; y[m]=-0.5+tau*np.exp(-(t[m]-t2)/tau)
    return y
for tol in ({}, dict(rtol=1e-9, atol=1e-12)):
    res = circuitsim.parse("""
sigsrc U u v=pwl(0,0, 0.1,0, 0.1,1, 1,1, 1,-0.5)
ratelim R u y rising=2 falling=1
.tran 3 10m
""").simulate(**tol)
    print(np.max(np.abs(res["y"]-exact(res.t))), res.stats["nsteps"], res.stats["events"])
