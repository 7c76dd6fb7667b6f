#!/usr/bin/env python3
"""Checks mm.cu's index math on the CPU (no GPU, no numpy): one 128x128 block
of every kernel shape is run through emulated ldmatrix (.trans) and
mma.m16n8k16 fragments, with the fragment layouts of the PTX ISA, from the
same global->shared chunk mapping, shared addressing and epilogue as mm.cu,
and compared with the exact product of small random integers. Unwritten
shared elements are None, so a chunk mapping that misses one fails loudly.
Also checks that the banded tile order covers every tile once and that the
AMAP staging map is a bijection with conflict-free quarter-warp stores.
Exits 1 on any mismatch."""
import random, sys
fail = 0
BM=BN=128; PAD=8; THREADS=128
def run(BK, a_ldsm, b_ldsm, amap=False, K=64):
    global fail
    CPR=BK//8
    LDA=BK+PAD; LDB=BN+PAD
    A=[[random.randint(-4,4) for _ in range(K)] for _ in range(BM)]
    B=[[random.randint(-4,4) for _ in range(BN)] for _ in range(K)]
    acc={}  # (warp,lane,mi,ni)->[4]
    for w in range(4):
        for l in range(32):
            for mi in range(4):
                for ni in range(8): acc[(w,l,mi,ni)]=[0,0,0,0]
    for kt in range(K//BK):
        As=[None]*(BM*LDA); Bs=[None]*(BK*LDB)
        for tid in range(THREADS):
            for c in range(BM*BK//8//THREADS):
                idx=tid+c*THREADS
                r=(idx&7)+8*(idx//(8*CPR)) if amap else idx//CPR
                col=((idx//8)%CPR if amap else idx%CPR)*8
                for e in range(8): As[r*LDA+col+e]=A[r][kt*BK+col+e]
            for c in range(BK*BN//8//THREADS):
                idx=tid+c*THREADS; r=idx//(BN//8); col=idx%(BN//8)*8
                for e in range(8): Bs[r*LDB+col+e]=B[kt*BK+r][col+e]
        for w in range(4):
            wm,wn=w>>1,w&1
            for kk in range(0,BK,16):
                af={}; bf={}
                def ldsm(S,addr,trans):
                    regs=[[None]*4 for _ in range(32)]
                    for i in range(4):
                        rows=[addr[8*i+j] for j in range(8)]
                        M=[[S[rows[j]+e] for e in range(8)] for j in range(8)]
                        for l in range(32):
                            g,t=l//4,l%4
                            regs[l][i]=(M[g][2*t],M[g][2*t+1]) if not trans else (M[2*t][g],M[2*t+1][g])
                    return regs
                for mi in range(4):
                    r0=wm*64+mi*16
                    if a_ldsm:
                        regs=ldsm(As,[(r0+(l&15))*LDA+kk+(l>>4)*8 for l in range(32)],False)
                        for l in range(32): af[(l,mi)]=regs[l]
                    else:
                        for l in range(32):
                            g,t=l>>2,l&3; p=(r0+g)*LDA+kk+2*t
                            af[(l,mi)]=[(As[q],As[q+1]) for q in (p,p+8*LDA,p+8,p+8*LDA+8)]
                for nj in range(4):
                    n0=wn*64+nj*16
                    if b_ldsm:
                        regs=ldsm(Bs,[(kk+(l&15))*LDB+n0+(l>>4)*8 for l in range(32)],True)
                        for l in range(32):
                            bf[(l,2*nj)]=[regs[l][0],regs[l][1]]; bf[(l,2*nj+1)]=[regs[l][2],regs[l][3]]
                    else:
                        for l in range(32):
                            g,t=l>>2,l&3
                            for h in range(2):
                                p=(kk+2*t)*LDB+n0+h*8+g
                                bf[(l,2*nj+h)]=[(Bs[p],Bs[p+LDB]),(Bs[p+8*LDB],Bs[p+9*LDB])]
                for mi in range(4):
                    for ni in range(8):
                        # assemble per PTX layout
                        Am=[[None]*16 for _ in range(16)]; Bm=[[None]*8 for _ in range(16)]
                        for l in range(32):
                            g,t=l>>2,l&3; a=af[(l,mi)]; b=bf[(l,ni)]
                            Am[g][2*t],Am[g][2*t+1]=a[0]; Am[g+8][2*t],Am[g+8][2*t+1]=a[1]
                            Am[g][2*t+8],Am[g][2*t+9]=a[2]; Am[g+8][2*t+8],Am[g+8][2*t+9]=a[3]
                            Bm[2*t][g],Bm[2*t+1][g]=b[0]; Bm[2*t+8][g],Bm[2*t+9][g]=b[1]
                        for l in range(32):
                            g,t=l>>2,l&3; c=acc[(w,l,mi,ni)]
                            for idx,(r,cc) in enumerate(((g,2*t),(g,2*t+1),(g+8,2*t),(g+8,2*t+1))):
                                c[idx]+=sum(Am[r][k]*Bm[k][cc] for k in range(16))
    C=[[None]*BN for _ in range(BM)]
    for w in range(4):
        wm,wn=w>>1,w&1
        for l in range(32):
            g,t=l>>2,l&3
            for mi in range(4):
                for ni in range(8):
                    r=wm*64+mi*16+g; c=wn*64+ni*8+2*t; a=acc[(w,l,mi,ni)]
                    C[r][c],C[r][c+1],C[r+8][c],C[r+8][c+1]=a
    bad=sum(1 for i in range(BM) for j in range(BN) if C[i][j]!=sum(A[i][k]*B[k][j] for k in range(K)))
    print("BK",BK,"a_ldsm",a_ldsm,"b_ldsm",b_ldsm,"amap",amap,"wrong entries",bad)
    fail += bad != 0
for args in ((32,True,True),(32,False,False),(32,False,True),(64,True,True),(32,True,True,True),(64,True,True,True)): run(*args)
# banded tile order covers every tile once
for tm,tn in ((64,64),(40,24),(3,5)):
    seen=set()
    for bid in range(tm*tn):
        band=bid//(8*tn); first=band*8; high=min(tm-first,8); inb=bid-band*8*tn
        seen.add((first+inb%high, inb//high))
    ok=len(seen)==tm*tn and all(0<=a<tm and 0<=b<tn for a,b in seen)
    print("tile order",tm,tn,ok); fail += not ok
# AMAP: quarter-warp 16-byte stores into 80-byte (BK 32) / 144-byte rows
for BK in (32,64):
    CPR=BK//8; LDA=BK+PAD; ok=True
    for p in range(0,BM*CPR,8):
        slots={(((((p+j)&7)+8*((p+j)//(8*CPR)))*LDA*2+((p+j)//8)%CPR*16)//16)%8 for j in range(8)}
        ok &= len(slots)==8
    print("amap conflict-free stores, BK",BK,ok); fail += not ok
sys.exit(1 if fail else 0)
