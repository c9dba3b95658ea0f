/* theme: not written yet */
