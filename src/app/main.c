#include <stdio.h>
int main(void) { puts("loam"); return 0; }
