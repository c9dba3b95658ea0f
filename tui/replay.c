/* replay: not written yet */
