/* report: not written yet */
