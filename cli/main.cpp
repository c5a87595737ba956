// main.cpp: the mirac executable. Everything lives in the library; see cli/cli.hpp.
#include "cli/cli.hpp"

int main(int argc, char** argv) { return mirac::run_cli(argc, argv); }
