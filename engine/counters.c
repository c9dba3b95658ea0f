/* counters: not written yet */
