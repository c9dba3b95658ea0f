/* round: not written yet */
