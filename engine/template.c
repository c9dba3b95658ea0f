/* template: not written yet */
