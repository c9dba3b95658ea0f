/* provenance: not written yet */
