/* console: not written yet */
