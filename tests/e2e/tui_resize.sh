#!/bin/bash
# placeholder until written
exit 77
