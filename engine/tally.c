/* tally: not written yet */
