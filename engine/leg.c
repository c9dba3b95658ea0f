/* leg: not written yet */
