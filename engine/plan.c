/* plan: not written yet */
