/* resume: not written yet */
