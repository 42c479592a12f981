// sapsim: command-line front end of sapcontact (sapsim/sapsim_command.h).
#include "sapsim/sapsim_command.h"

int main(int argc, char** argv) { return sapcontact::cli::Main(argc, argv); }
