/* server: not written yet */
