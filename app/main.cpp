#include <CLI/CLI.hpp>
#include <cstdio>
int main(int argc, char** argv) {
    CLI::App app{"wavewall"};
    CLI11_PARSE(app, argc, argv);
    return 0;
}
