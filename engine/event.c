/* event: not written yet */
