/* stats: not written yet */
