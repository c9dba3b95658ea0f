/* quiet: not written yet */
