#version 430 core
// Depth-only pass into the key light's shadow map: nothing to write but depth.
void main() {}
