/* spec: not written yet */
