#include "test_helpers.h"
int main(void){return 0;}
