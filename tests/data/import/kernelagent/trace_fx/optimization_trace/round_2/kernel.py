import triton
# round 2 from file
