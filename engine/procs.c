/* procs: not written yet */
