"""The tile network in torch (the `train` extra): a small U-Net whose output maps are defined in
`tantrix_pi.vision.network`. About 125 k parameters: under 1 MB as ONNX, 7 ms for a 256 x 256 input on
one x86 core through onnxruntime."""

from __future__ import annotations

import torch
from torch import nn

from tantrix_pi.vision.network import CENTRE, CHANNELS

WIDTHS = (16, 24, 32, 48)
"""Channels at 1/2, 1/4, 1/8 and 1/16 of the input's resolution."""


def _conv(i: int, o: int, stride: int = 1) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(i, o, 3, stride, 1, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True))


class TileNet(nn.Module):
    """Encoder of four halvings, decoder back to half resolution with skip connections, a 1 x 1 head."""

    def __init__(self, widths: tuple[int, int, int, int] = WIDTHS) -> None:
        super().__init__()
        a, b, c, d = widths
        self.down0 = nn.Sequential(_conv(3, a, 2), _conv(a, a))
        self.down1 = nn.Sequential(_conv(a, b, 2), _conv(b, b))
        self.down2 = nn.Sequential(_conv(b, c, 2), _conv(c, c))
        self.down3 = nn.Sequential(_conv(c, d, 2), _conv(d, d), _conv(d, d))
        self.up2 = _conv(d + c, c)
        self.up1 = _conv(c + b, b)
        self.up0 = _conv(b + a, a)
        self.head = nn.Conv2d(a, CHANNELS, 1)
        self.upsample = nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False)
        with torch.no_grad():
            self.head.bias[CENTRE] = -4.0  # few pixels are centres: start the heat map low

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x0 = self.down0(x)
        x1 = self.down1(x0)
        x2 = self.down2(x1)
        x3 = self.down3(x2)
        y = self.up2(torch.cat([self.upsample(x3), x2], 1))
        y = self.up1(torch.cat([self.upsample(y), x1], 1))
        y = self.up0(torch.cat([self.upsample(y), x0], 1))
        return self.head(y)
