/* logw: not written yet */
