/*
 * ctf_next.h — private to core/ctf: the next batch of messages for a simple
 * sink's consume function, shared by the file reader and the live reader.
 * Returns 1 with msgs/count filled when there are messages, else 0 with
 * *status the consume function's answer (end, again, memory error, error).
 */
#ifndef CTF_NEXT_H
#define CTF_NEXT_H

#include <babeltrace2/babeltrace.h>

static inline int ctf_next(bt_message_iterator *it, bt_message_array_const *msgs, uint64_t *count,
                           bt_graph_simple_sink_component_consume_func_status *status) {
  switch (bt_message_iterator_next(it, msgs, count)) {
  case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK: return 1;
  case BT_MESSAGE_ITERATOR_NEXT_STATUS_END: *status = BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_END; break;
  case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN: *status = BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_AGAIN; break;
  case BT_MESSAGE_ITERATOR_NEXT_STATUS_MEMORY_ERROR:
    *status = BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_MEMORY_ERROR;
    break;
  default: *status = BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_ERROR; break;
  }
  return 0;
}

#endif /* CTF_NEXT_H */
