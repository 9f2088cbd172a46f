# chart-image.svg and chart-image.png, written by attnzoo; rerun with `gnuplot chart-image.gp` in this folder.
$f0 << EOD
"full" 0.5015 77.1167 7 1.10943
EOD
$f1 << EOD
"local" 8.495 77.0833 1.54513 1.14054
"bigbird" 4.0773 78.0333 2.02332 0.941187
EOD
$f2 << EOD
"linformer" 5.2374 82.9 1.66578 0.34641
"performer" 4.9189 77.6667 1.62183 1.11841
"linear" 10.1717 71.9167 1.35879 1.10038
EOD
$f3 << EOD
"reformer" 3.1629 70.45 1.74246 0.61441
"sinkhorn" 6.3609 77.9833 1.63598 0.63705
EOD
$f4 << EOD
"mixer" 14.363 78.6667 1.15449 0.814453
EOD

set terminal svg size 1100,650 dynamic noenhanced font 'Helvetica,13' background rgb 'white'
set output 'chart-image.svg'
set title "Image on this CPU (preset mini)"
set xlabel "training steps/s at 4096 tokens (attnzoo bench, batch 2, 2 layer(s), dim 64), log scale"
set ylabel "test accuracy (%): Image"
set grid
set key outside right top title "family (bubble area: peak memory at 4K)"
set logscale x
set xrange [0.278611:25.8534]
set yrange [2.38643:91.91]
set xtics ("0.5" 0.5, "1" 1, "2" 2, "5" 5, "10" 10, "20" 20)
set label 1 "full" at 0.5015,77.1167 center offset char 0,2.31429 front
set label 2 "local" at 8.495,77.0833 center offset char 0,1.06746 front
set label 3 "bigbird" at 4.0773,78.0333 center offset char 0,1.17676 front
set label 4 "linformer" at 5.2374,82.9 center offset char 0,1.09504 front
set label 5 "performer" at 4.9189,77.6667 center offset char 0,-1.08499 front
set label 6 "linear" at 10.1717,71.9167 center offset char 0,1.02487 front
set label 7 "reformer" at 3.1629,70.45 center offset char 0,1.11256 front
set label 8 "sinkhorn" at 6.3609,77.9833 center offset char 0,1.08822 front
set label 9 "mixer" at 14.363,78.6667 center offset char 0,0.978169 front
set arrow from graph 0, first 11.05 to graph 1, first 11.05 nohead dt 2 lc rgb '#888888'
set label 10 'chance (majority class)' at graph 0.01, first 11.05 offset 0,0.6 left textcolor rgb '#888888'
plot $f0 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#1f77b4' notitle, \
     $f0 using 2:3:4 with points pt 7 ps variable lc rgb '#701f77b4' title "dense", $f0 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#1f77b4' notitle, \
     $f1 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#2ca02c' notitle, \
     $f1 using 2:3:4 with points pt 7 ps variable lc rgb '#702ca02c' title "fixed", $f1 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#2ca02c' notitle, \
     $f2 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#9467bd' notitle, \
     $f2 using 2:3:4 with points pt 7 ps variable lc rgb '#709467bd' title "low-rank/kernel", $f2 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#9467bd' notitle, \
     $f3 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#ff7f0e' notitle, \
     $f3 using 2:3:4 with points pt 7 ps variable lc rgb '#70ff7f0e' title "learned", $f3 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#ff7f0e' notitle, \
     $f4 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#8c564b' notitle, \
     $f4 using 2:3:4 with points pt 7 ps variable lc rgb '#708c564b' title "attention-free", $f4 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#8c564b' notitle

unset output
set terminal pngcairo size 1100,650 noenhanced font 'Helvetica,11' background rgb 'white'
set output 'chart-image.png'
set title "Image on this CPU (preset mini)"
set xlabel "training steps/s at 4096 tokens (attnzoo bench, batch 2, 2 layer(s), dim 64), log scale"
set ylabel "test accuracy (%): Image"
set grid
set key outside right top title "family (bubble area: peak memory at 4K)"
set logscale x
set xrange [0.278611:25.8534]
set yrange [2.38643:91.91]
set xtics ("0.5" 0.5, "1" 1, "2" 2, "5" 5, "10" 10, "20" 20)
set label 1 "full" at 0.5015,77.1167 center offset char 0,2.31429 front
set label 2 "local" at 8.495,77.0833 center offset char 0,1.06746 front
set label 3 "bigbird" at 4.0773,78.0333 center offset char 0,1.17676 front
set label 4 "linformer" at 5.2374,82.9 center offset char 0,1.09504 front
set label 5 "performer" at 4.9189,77.6667 center offset char 0,-1.08499 front
set label 6 "linear" at 10.1717,71.9167 center offset char 0,1.02487 front
set label 7 "reformer" at 3.1629,70.45 center offset char 0,1.11256 front
set label 8 "sinkhorn" at 6.3609,77.9833 center offset char 0,1.08822 front
set label 9 "mixer" at 14.363,78.6667 center offset char 0,0.978169 front
set arrow from graph 0, first 11.05 to graph 1, first 11.05 nohead dt 2 lc rgb '#888888'
set label 10 'chance (majority class)' at graph 0.01, first 11.05 offset 0,0.6 left textcolor rgb '#888888'
plot $f0 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#1f77b4' notitle, \
     $f0 using 2:3:4 with points pt 7 ps variable lc rgb '#701f77b4' title "dense", $f0 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#1f77b4' notitle, \
     $f1 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#2ca02c' notitle, \
     $f1 using 2:3:4 with points pt 7 ps variable lc rgb '#702ca02c' title "fixed", $f1 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#2ca02c' notitle, \
     $f2 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#9467bd' notitle, \
     $f2 using 2:3:4 with points pt 7 ps variable lc rgb '#709467bd' title "low-rank/kernel", $f2 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#9467bd' notitle, \
     $f3 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#ff7f0e' notitle, \
     $f3 using 2:3:4 with points pt 7 ps variable lc rgb '#70ff7f0e' title "learned", $f3 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#ff7f0e' notitle, \
     $f4 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#8c564b' notitle, \
     $f4 using 2:3:4 with points pt 7 ps variable lc rgb '#708c564b' title "attention-free", $f4 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#8c564b' notitle

unset output
