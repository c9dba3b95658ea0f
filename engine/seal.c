/* seal: not written yet */
