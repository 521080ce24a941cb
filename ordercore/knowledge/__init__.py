"""Where preferences come from and how far to trust them: rules, answers and their agreement, the
choice of the next pair, proxy and oracle experts, and automatic trust."""
