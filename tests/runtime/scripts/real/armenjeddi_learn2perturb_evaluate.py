"""ArmenJeddi/Learn2Perturb, evaluate.py: the evaluation loop, with the model it evaluates.

Sources, all at commit b81a6674696cafb2a70b0abe64e7c7e45ad66e61 of
https://github.com/ArmenJeddi/Learn2Perturb, verbatim, one after the other:
models/down_sample.py (all 14 lines), models/normalizer.py (all 12), models/resnet_v1.py (all 134 but
line 12, ``from down_sample import DownsampleA``: that class is copied above it), attacks/pgd.py (all
47), attacks/fgsm.py (all 36) and evaluate.py (all 41 but lines 6-7, the imports of pgd and fgsm,
copied above it). License: MIT, Copyright (c) 2020 Ahmadreza (LICENSE at that commit). The lint
corpus labels evaluate.py lines 18 and 19 (TDL001): ``inputs.cuda()`` and ``labels.cuda()`` as
statements, their results discarded, so the batch stays on the CPU while the model is on the GPU.

Driver (below the separator): what main.py does before and at its first evaluation:
``l2p_resnet_v1(depth=20, num_classes=10)`` (its default ``--res_v1_depth``), wrapped as
``torch.nn.Sequential(Normalize_layer(mean, std), net)`` with main.py's CIFAR-10 mean and std,
``model.cuda()`` and ``criterion.cuda()`` when CUDA is available, then ``evaluate(model, testloader,
attack=None)``. The test set is 8 random 3x32x32 images with labels instead of CIFAR-10, in a
DataLoader of batch size 4 (main.py: 128, 2 workers; here none) and no training epoch runs first.
"""
# ruff: noqa
# fmt: off

import torch
import torch.nn as nn


class DownsampleA(nn.Module):

    def __init__(self, nIn, nOut, stride):
        super(DownsampleA, self).__init__()
        assert stride == 2
        self.avg = nn.AvgPool2d(kernel_size=1, stride=stride)

    def forward(self, x):
        x = self.avg(x)
        return torch.cat((x, x.mul(0)), 1)

import torch
import torch.nn as nn

class Normalize_layer(nn.Module):
    
    def __init__(self, mean, std):
        super(Normalize_layer, self).__init__()
        self.mean = nn.Parameter(torch.Tensor(mean).unsqueeze(1).unsqueeze(1), requires_grad=False)
        self.std = nn.Parameter(torch.Tensor(std).unsqueeze(1).unsqueeze(1), requires_grad=False)
        
    def forward(self, x):
        return x.sub(self.mean).div(self.std)

'''
    resnet version 1 architecture
'''

import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn import init



class L2P_Basicblock_V1(nn.Module):
    expansion = 1

    def __init__(self, inplanes, planes, stride=1, downsample=None):
        super(L2P_Basicblock_V1, self).__init__()
        self.add_noise = False

        self.conv_a = nn.Conv2d(inplanes, planes, kernel_size=3, stride=stride, padding=1, bias=False)
        self.bn_a = nn.BatchNorm2d(planes)

        self.conv_b = nn.Conv2d(planes, planes, kernel_size=3, stride=1, padding=1, bias=False)
        self.bn_b = nn.BatchNorm2d(planes)

        self.downsample = downsample

        if planes == 16:
            self.sigma_map = nn.Parameter(torch.ones((16, 32, 32)) * 0.25 , requires_grad=True)
        elif planes == 32:
            self.sigma_map = nn.Parameter(torch.ones((32, 16, 16)) * 0.25, requires_grad=True)
        else:
            self.sigma_map = nn.Parameter(torch.ones((64, 8, 8)) * 0.25, requires_grad=True)

    def put_noise(self, mode = True):
        self.add_noise = mode

    def forward(self, x):
        residual = x
        basicblock = F.relu(self.bn_a(self.conv_a(x)))

        basicblock = self.conv_b(basicblock)
        basicblock = self.bn_b(basicblock)

        if self.downsample is not None:
            residual = self.downsample(x)

        out = residual + basicblock

        if self.add_noise:
            self.normal_noise = self.sigma_map.clone().normal_(0,1)
            self.perf = self.normal_noise * self.sigma_map
            self.final_noise = self.perf.expand(out.size())

            out += self.final_noise
        
        return F.relu(out, inplace=True)


class L2P_ResNet_V1(nn.Module):

    def __init__(self, block, depth, num_classes=10):

        super(L2P_ResNet_V1, self).__init__()
        
        assert (depth - 2) % 6 == 0, '(depth - 2) % 6 should equal zero'
        layer_blocks = (depth - 2) // 6
        self.add_noise = False

        self.num_classes = num_classes

        self.conv_1_3x3 = nn.Conv2d(3, 16, kernel_size=3, stride=1, padding=1, bias=False)
        self.bn_1 = nn.BatchNorm2d(16)

        self.cn1_sigma_map = nn.Parameter(torch.ones((16, 32, 32)) * 0.25 , requires_grad=True)

        self.inplanes = 16
        self.stage_1 = self._make_layer(block, 16, layer_blocks, 1)
        self.stage_2 = self._make_layer(block, 32, layer_blocks, 2)
        self.stage_3 = self._make_layer(block, 64, layer_blocks, 2)
        self.avgpool = nn.AvgPool2d(8)
        self.classifier = nn.Linear(64*block.expansion, num_classes)

        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                n = m.kernel_size[0] * m.kernel_size[1] * m.out_channels
                m.weight.data.normal_(0, math.sqrt(2. / n))
                #m.bias.data.zero_()
            elif isinstance(m, nn.BatchNorm2d):
                m.weight.data.fill_(1)
                m.bias.data.zero_()
            elif isinstance(m, nn.Linear):
                init.kaiming_normal(m.weight)
                m.bias.data.zero_()

    def put_noise(self, mode = True):
        self.add_noise = mode

    def _make_layer(self, block, planes, blocks, stride=1):
        downsample = None
        if stride != 1 or self.inplanes != planes * block.expansion:
            downsample = DownsampleA(self.inplanes, planes * block.expansion, stride)

        layers = []
        layers.append(block(self.inplanes, planes, stride, downsample))
        self.inplanes = planes * block.expansion
        for i in range(1, blocks):
            layers.append(block(self.inplanes, planes))

        return nn.Sequential(*layers)

    def forward(self, x):
        x = self.conv_1_3x3(x)
        x = self.bn_1(x)
        if self.add_noise:
            self.cn1_normal_noise = self.cn1_sigma_map.clone().normal_(0,std)
            self.cn1_perf = self.cn1_normal_noise * self.cn1_sigma_map
            self.cn1_final_noise = self.cn1_perf.expand(x.size())
            x += self.cn1_final_noise

        x = F.relu(x, inplace=True)
        x = self.stage_1(x)
        x = self.stage_2(x)
        x = self.stage_3(x)
        x = self.avgpool(x)
        x = x.view(x.size(0), -1)
        return self.classifier(x)

# (depth - 2) % 6 should equal 0
def l2p_resnet_v1(depth = 20, num_classes=10): 
    model = L2P_ResNet_V1(L2P_Basicblock_V1, depth=depth, num_classes=num_classes)
    return model

'''
    Projected Gradient Descent (PGD) attack
'''

import torch
import torch.nn.functional as F

def pgd(model, data, target, epsilon = 8/255, k=7, a=0.01, random_start=True,
               d_min=0, d_max=1):
    
    model.eval()
    perturbed_data = data.clone()

    perturbed_data.requires_grad = True

    data_max = data + epsilon
    data_min = data - epsilon
    data_max.clamp_(d_min, d_max)
    data_min.clamp_(d_min, d_max)

    if random_start:
        with torch.no_grad():
            perturbed_data.data = data + perturbed_data.uniform_(-1*epsilon, epsilon)
            perturbed_data.data.clamp_(d_min, d_max)

    for _ in range(k):

        output = model( perturbed_data )
        loss = F.cross_entropy(output, target)

        if perturbed_data.grad is not None:
            perturbed_data.grad.data.zero_()

        model.zero_grad()

        loss.backward()
        data_grad = perturbed_data.grad.data

        with torch.no_grad():
            perturbed_data.data += a * torch.sign(data_grad)
            perturbed_data.data = torch.max(torch.min(perturbed_data, data_max),
                                            data_min)
    perturbed_data.requires_grad = False

    model.train()
        
    return perturbed_data

'''
    Fast Gradient Sign Method (FGSM) attack
'''

import torch
import torch.nn.functional as F

def fgsm(model, data, target, epsilon = 8/255, data_min=0, data_max=1):

    model.eval()
    # perturbed_data = copy.deepcopy(data)
    perturbed_data = data.clone()

    perturbed_data.requires_grad = True

    output = model(perturbed_data)
    loss = F.cross_entropy(output, target)

    if perturbed_data.grad is not None:
        perturbed_data.grad.data.zero_()

    model.zero_grad()

    loss.backward()

    # Collect the element-wise sign of the data gradient
    sign_data_grad = perturbed_data.grad.data.sign()
    perturbed_data.requires_grad = False

    with torch.no_grad():
        # Create the perturbed image by adjusting each pixel of the input image
        perturbed_data += epsilon*sign_data_grad
        # Adding clipping to maintain [min,max] range, default 0,1 for image
        perturbed_data.clamp_(data_min, data_max)

    return perturbed_data

'''
    Learn2Perturb evaluation function
'''

import torch

def evaluate(model, testloader, attack=None, epsilon = 8/255):
    model.eval()
    correct = 0
    total = 0

    with torch.no_grad():
        for data in testloader:
            inputs, labels = data[0], data[1]
            if torch.cuda.is_available():
                inputs.cuda()
                labels.cuda()
            
            if attack == 'pgd':
                perturbed_image = pgd(model, inputs, labels, epsilon = epsilon)
                outputs = model(perturbed_image)
                input_info = "Accuracy under pgd attack with epsilon = " + str(epsilon)
            elif attack == 'fgsm':
                perturbed_image = fgsm(model, inputs, labels, epsilon = epsilon)
                outputs = model(perturbed_image)
                input_info = "Accuracy under fgsm attack with epsilon = " + str(epsilon)
            elif attack is None:
                outputs = model(inputs)
                input_info = "Clean data accuracy"
            else:
                print("Attack is not yet supported!")
                return
                
            _, predicted = torch.max(outputs.data, 1)
            total += labels.size(0)
            correct += (predicted == labels).sum().item()

        acc = correct/total
        print('        {} = {}'.format(input_info, 100*acc))


# ---- driver (not from the repository) ---------------------------------------------------------

if __name__ == "__main__":
    torch.manual_seed(0)
    testset = torch.utils.data.TensorDataset(torch.rand(8, 3, 32, 32), torch.randint(0, 10, (8,)))
    testloader = torch.utils.data.DataLoader(testset, batch_size=4, shuffle=False)

    net = l2p_resnet_v1(depth=20, num_classes=10)

    mean = [0.4914, 0.4822, 0.4465]
    std = [0.2023, 0.1994, 0.2010]

    model = torch.nn.Sequential(
        Normalize_layer(mean,std),
        net
    )

    criterion = torch.nn.CrossEntropyLoss()

    if torch.cuda.is_available():
        model.cuda()
        criterion.cuda()

    evaluate(model, testloader, attack=None)
