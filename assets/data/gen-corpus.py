#!/usr/bin/env python3
# Writes corpus.txt: 512 KiB of pseudo-English, the same bytes on every
# machine (a fixed LCG, no random module), so the example rounds compress the
# same input everywhere.  Regenerate with: python3 gen-corpus.py > corpus.txt
import sys

WORDS = """the of and to in is that for it as with was on be by at this are
from or an which have not but all were when there can more one their has
been its also into only other time new some could these two may first then
do any like my now over such our man me even most made after well through
back years where much your way down should because each just those people
how too little state good very make world still own see men work long get
here between both life being under never day same another know while last
might us great old year off come since against go came right used take three
round cell arm rep leg counter cycle instruction wall clock median ratio
noise floor quiet server client pinned nice settle scratch template""".split()

state = 20261129
def rand(n):
    global state
    state = (state * 6364136223846793005 + 1442695040888963407) % (1 << 64)
    return (state >> 33) % n

out, size, line = [], 0, []
while size < 512 * 1024:
    w = WORDS[rand(len(WORDS))]
    if rand(9) == 0:
        w = str(rand(100000))
    line.append(w)
    if len(line) >= 8 + rand(8):
        s = " ".join(line).capitalize() + ".\n"
        out.append(s)
        size += len(s)
        line = []
sys.stdout.write("".join(out)[:512 * 1024])
