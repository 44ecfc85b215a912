// The one result of a call, read by JavaScript through two exports (an instance serves one call).
#include "pixelgate.h"

static uint8_t *output_data;
static size_t output_size;

void pg_set_output(uint8_t *data, size_t size) {
  output_data = data;
  output_size = size;
}

uint8_t *pg_output_data(void) { return output_data; }
size_t pg_output_size(void) { return output_size; }
