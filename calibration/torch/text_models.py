"""The zoo's language models in plain PyTorch, laid out as Hugging Face's transformers lays them out
(Debian packages torch but not transformers): GPT2LMHeadModel and BertForPreTraining, with their
parameters (equal to the published totals and to ddlsim's count, sim/model/zoo_text.cpp), dropout
0.1, eager attention (scores scaled, then masked, softmax, dropout) and the output projection tied
to the token embedding. Each model's forward takes token ids (batch x sequence) and returns the
training loss: cross-entropy over every token's logits (GPT-2), plus the next-sentence loss (BERT).
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

# name -> (layers, heads, hidden, mlp, positions, vocabulary, default sequence length)
CONFIGS = {
    "gpt2": (12, 12, 768, 3072, 1024, 50257, 1024),
    "gpt2_medium": (24, 16, 1024, 4096, 1024, 50257, 1024),
    "bert_base": (12, 12, 768, 3072, 512, 30522, 128),
    "bert_large": (24, 16, 1024, 4096, 512, 30522, 128),
}
DROPOUT = 0.1


def heads_of(x, heads):
    b, t, c = x.shape
    return x.view(b, t, heads, c // heads).transpose(1, 2)


def merge_heads(x):
    b, h, t, d = x.shape
    return x.transpose(1, 2).reshape(b, t, h * d)


class GPT2Block(nn.Module):
    """Pre-norm causal block: ln_1, packed q/k/v projection (c_attn), attention, c_proj; ln_2, MLP
    with gelu_new (GELU's tanh approximation)."""

    def __init__(self, hidden, heads, mlp):
        super().__init__()
        self.heads = heads
        self.ln_1, self.ln_2 = nn.LayerNorm(hidden), nn.LayerNorm(hidden)
        self.c_attn, self.attn_proj = nn.Linear(hidden, 3 * hidden), nn.Linear(hidden, hidden)
        self.c_fc, self.mlp_proj = nn.Linear(hidden, mlp), nn.Linear(mlp, hidden)
        self.drop = nn.Dropout(DROPOUT)

    def forward(self, x):
        t = x.shape[1]
        q, k, v = (heads_of(z, self.heads) for z in self.c_attn(self.ln_1(x)).split(x.shape[2], dim=2))
        w = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(q.shape[-1])
        # The causal mask is made here, not kept as a buffer: DDP broadcasts buffers, gloo not bools.
        causal = torch.ones(t, t, dtype=torch.bool, device=x.device).tril()
        w = torch.where(causal, w, torch.finfo(w.dtype).min)
        a = merge_heads(torch.matmul(self.drop(F.softmax(w, dim=-1)), v))
        x = x + self.drop(self.attn_proj(a))
        return x + self.drop(self.mlp_proj(F.gelu(self.c_fc(self.ln_2(x)), approximate="tanh")))


class GPT2LM(nn.Module):
    def __init__(self, layers, heads, hidden, mlp, positions, vocab):
        super().__init__()
        self.wte, self.wpe = nn.Embedding(vocab, hidden), nn.Embedding(positions, hidden)
        self.drop = nn.Dropout(DROPOUT)
        self.h = nn.ModuleList(GPT2Block(hidden, heads, mlp) for _ in range(layers))
        self.ln_f = nn.LayerNorm(hidden)

    def forward(self, ids):
        pos = torch.arange(ids.shape[1], device=ids.device)
        x = self.drop(self.wte(ids) + self.wpe(pos))
        for block in self.h:
            x = block(x)
        logits = F.linear(self.ln_f(x), self.wte.weight)  # lm_head, tied
        return F.cross_entropy(logits.view(-1, logits.shape[-1]), ids.view(-1))


class BertLayer(nn.Module):
    """Post-norm block: query, key, value, attention, output dense + layer norm; intermediate dense
    with GELU, output dense + layer norm."""

    def __init__(self, hidden, heads, mlp):
        super().__init__()
        self.heads = heads
        self.query, self.key, self.value = (nn.Linear(hidden, hidden) for _ in range(3))
        self.attn_out, self.attn_ln = nn.Linear(hidden, hidden), nn.LayerNorm(hidden, eps=1e-12)
        self.intermediate, self.output = nn.Linear(hidden, mlp), nn.Linear(mlp, hidden)
        self.out_ln = nn.LayerNorm(hidden, eps=1e-12)
        self.drop = nn.Dropout(DROPOUT)

    def forward(self, x, mask):
        q, k, v = (heads_of(f(x), self.heads) for f in (self.query, self.key, self.value))
        w = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(q.shape[-1]) + mask
        a = merge_heads(torch.matmul(self.drop(F.softmax(w, dim=-1)), v))
        x = self.attn_ln(x + self.drop(self.attn_out(a)))
        return self.out_ln(x + self.drop(self.output(F.gelu(self.intermediate(x)))))


class BertPreTraining(nn.Module):
    def __init__(self, layers, heads, hidden, mlp, positions, vocab):
        super().__init__()
        self.word, self.position = nn.Embedding(vocab, hidden), nn.Embedding(positions, hidden)
        self.segment, self.emb_ln = nn.Embedding(2, hidden), nn.LayerNorm(hidden, eps=1e-12)
        self.drop = nn.Dropout(DROPOUT)
        self.layers = nn.ModuleList(BertLayer(hidden, heads, mlp) for _ in range(layers))
        self.pooler, self.seq_relationship = nn.Linear(hidden, hidden), nn.Linear(hidden, 2)
        self.transform, self.transform_ln = nn.Linear(hidden, hidden), nn.LayerNorm(hidden, eps=1e-12)
        self.decoder_bias = nn.Parameter(torch.zeros(vocab))

    def forward(self, ids):
        b, t = ids.shape
        pos = torch.arange(t, device=ids.device)
        x = self.drop(self.emb_ln(self.word(ids) + self.position(pos) + self.segment(torch.zeros_like(ids))))
        mask = torch.zeros(b, 1, 1, t, device=ids.device)  # every token attended (BERT adds its mask)
        for layer in self.layers:
            x = layer(x, mask)
        nsp = self.seq_relationship(torch.tanh(self.pooler(x[:, 0])))
        h = self.transform_ln(F.gelu(self.transform(x)))
        logits = F.linear(h, self.word.weight, self.decoder_bias)  # decoder, tied
        mlm = F.cross_entropy(logits.view(-1, logits.shape[-1]), ids.view(-1))
        return mlm + F.cross_entropy(nsp, torch.zeros(b, dtype=torch.long, device=ids.device))


def build(name, vocab, sequence):
    """The model `name` with a vocabulary of `vocab` tokens for sequences of up to `sequence`."""
    layers, heads, hidden, mlp, positions, _, _ = CONFIGS[name]
    if sequence > positions:
        raise ValueError(f"{name} holds at most {positions} positions")
    cls = GPT2LM if name.startswith("gpt2") else BertPreTraining
    return cls(layers, heads, hidden, mlp, positions, vocab)
