/* model: not written yet */
