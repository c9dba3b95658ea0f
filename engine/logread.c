/* logread: not written yet */
